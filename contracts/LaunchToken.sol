// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {ERC20} from "./ERC20.sol";

/// @title LaunchToken
/// @notice The launched ERC-20: 18 decimals, a fixed supply minted once to the factory, and metadata
/// (name, symbol, ERC-7572 contract URI, extra key/value pairs) that only the factory may change.
contract LaunchToken is ERC20 {
    uint8 public constant decimals = 18;
    uint256 public immutable totalSupply;
    address public immutable factory;
    string public contractURI;

    mapping(string => string) private _extraMetadata;

    event NameUpdated(string name);
    event SymbolUpdated(string symbol);
    /// ERC-7572.
    event ContractURIUpdated();
    event ExtraMetadataUpdated(string key, string value);

    error NotFactory();

    modifier onlyFactory() {
        if (msg.sender != factory) revert NotFactory();
        _;
    }

    constructor(string memory name_, string memory symbol_, uint256 supply, address factory_) ERC20(name_, symbol_) {
        totalSupply = supply;
        factory = factory_;
        _credit(factory_, supply);
    }

    function extraMetadata(string calldata key) external view returns (string memory) {
        return _extraMetadata[key];
    }

    function setName(string calldata value) external onlyFactory {
        name = value;
        emit NameUpdated(value);
    }

    function setSymbol(string calldata value) external onlyFactory {
        symbol = value;
        emit SymbolUpdated(value);
    }

    function setContractURI(string calldata value) external onlyFactory {
        contractURI = value;
        emit ContractURIUpdated();
    }

    function setExtraMetadata(string calldata key, string calldata value) external onlyFactory {
        _extraMetadata[key] = value;
        emit ExtraMetadataUpdated(key, value);
    }
}
